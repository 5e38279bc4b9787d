logs coredns-7db6d8ff4d-4wz8k -n kube-system --previous
