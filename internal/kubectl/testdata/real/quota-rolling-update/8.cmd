describe replicaset case-api-95879b5d -n court-staging
