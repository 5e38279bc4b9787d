get pods -n vision
