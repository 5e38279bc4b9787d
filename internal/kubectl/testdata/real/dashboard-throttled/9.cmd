describe replicaset homepage-6c8f9d7b5 -n homepage
