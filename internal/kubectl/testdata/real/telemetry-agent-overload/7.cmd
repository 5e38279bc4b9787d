get persistentvolumeclaims -n kube-system
