get resourcequotas -n voice
