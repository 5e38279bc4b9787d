describe node ip-10-12-3-18.us-west-2.compute.internal
