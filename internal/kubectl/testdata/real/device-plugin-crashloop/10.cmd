describe deployment detector-api -n vision
