get events -n assist
