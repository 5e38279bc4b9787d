get pods -n court-staging
