get pods -n vision -o wide
