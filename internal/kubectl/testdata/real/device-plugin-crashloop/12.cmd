describe node ip-10-12-7-44.us-west-2.compute.internal
