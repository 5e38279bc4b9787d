describe replicaset coredns-5d78c9869d -n kube-system
