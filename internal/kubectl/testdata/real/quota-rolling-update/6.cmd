get resourcequotas -n court-staging
