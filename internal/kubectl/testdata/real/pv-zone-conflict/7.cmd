get persistentvolumeclaims -n monitoring
