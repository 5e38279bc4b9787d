get pods -n inference -o wide
