get pods -n notebooks -o wide
