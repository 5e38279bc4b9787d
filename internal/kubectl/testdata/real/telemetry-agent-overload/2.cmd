get pods -n kube-system -o wide
