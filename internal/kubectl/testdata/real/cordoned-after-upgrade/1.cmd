get pods -n shop
