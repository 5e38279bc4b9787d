describe deployment coredns -n kube-system
