get persistentvolumeclaims -n court-staging
