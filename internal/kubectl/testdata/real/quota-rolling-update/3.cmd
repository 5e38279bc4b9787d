get events -n court-staging
