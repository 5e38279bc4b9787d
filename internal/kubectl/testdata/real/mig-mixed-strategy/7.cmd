get persistentvolumeclaims -n notebooks
