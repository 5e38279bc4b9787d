describe replicaset checkout-5d8f7c6b9 -n shop
