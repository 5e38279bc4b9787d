get pods -n research -o wide
