get resourcequotas -n events
