get persistentvolumeclaims -n inference
