get persistentvolumeclaims -n vision
