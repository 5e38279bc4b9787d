describe replicaset detector-api-6f7d8c9b5 -n vision
