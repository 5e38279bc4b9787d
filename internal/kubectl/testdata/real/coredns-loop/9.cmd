describe replicaset coredns-7db6d8ff4d -n kube-system
