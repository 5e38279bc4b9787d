get resourcequotas -n homepage
