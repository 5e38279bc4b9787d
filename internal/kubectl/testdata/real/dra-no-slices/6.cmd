get resourcequotas -n research
