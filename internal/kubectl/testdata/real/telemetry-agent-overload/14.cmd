logs coredns-5d78c9869d-q7hxl -n kube-system
