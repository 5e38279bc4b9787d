get pods -n shop -o wide
