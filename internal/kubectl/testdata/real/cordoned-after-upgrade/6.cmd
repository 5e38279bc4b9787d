get resourcequotas -n shop
