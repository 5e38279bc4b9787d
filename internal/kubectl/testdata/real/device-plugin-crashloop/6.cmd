get resourcequotas -n vision
