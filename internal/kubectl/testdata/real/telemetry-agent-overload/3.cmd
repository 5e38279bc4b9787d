get events -n kube-system
