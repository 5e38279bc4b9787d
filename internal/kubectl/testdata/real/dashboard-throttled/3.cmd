get events -n homepage
