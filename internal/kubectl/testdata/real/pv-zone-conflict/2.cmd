get pods -n monitoring -o wide
