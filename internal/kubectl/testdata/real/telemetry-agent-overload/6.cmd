get resourcequotas -n kube-system
