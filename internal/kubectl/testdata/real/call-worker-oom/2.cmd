get pods -n voice -o wide
