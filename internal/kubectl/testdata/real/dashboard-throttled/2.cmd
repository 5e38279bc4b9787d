get pods -n homepage -o wide
