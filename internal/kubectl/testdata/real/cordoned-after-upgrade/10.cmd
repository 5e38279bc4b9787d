describe deployment checkout -n shop
