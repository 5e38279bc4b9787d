get pods -n kube-system
