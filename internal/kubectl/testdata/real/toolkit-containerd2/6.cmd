get resourcequotas -n assist
