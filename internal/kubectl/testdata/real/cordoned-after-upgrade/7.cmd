get persistentvolumeclaims -n shop
