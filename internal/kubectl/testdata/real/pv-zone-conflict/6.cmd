get resourcequotas -n monitoring
