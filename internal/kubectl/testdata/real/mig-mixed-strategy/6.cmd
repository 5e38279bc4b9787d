get resourcequotas -n notebooks
