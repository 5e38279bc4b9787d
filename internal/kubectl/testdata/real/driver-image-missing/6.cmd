get resourcequotas -n inference
