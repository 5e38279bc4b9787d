get pods -n court-staging -o wide
