get pods -n assist -o wide
