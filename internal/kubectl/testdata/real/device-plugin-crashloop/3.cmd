get events -n vision
