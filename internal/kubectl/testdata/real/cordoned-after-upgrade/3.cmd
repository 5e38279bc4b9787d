get events -n shop
