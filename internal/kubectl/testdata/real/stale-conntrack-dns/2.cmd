get pods -n events -o wide
