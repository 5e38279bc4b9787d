get resourcequotas -n arc-runners
