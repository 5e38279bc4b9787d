describe deployment case-api -n court-staging
