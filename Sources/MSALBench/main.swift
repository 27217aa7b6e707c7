// msal-bench: figures for the token cache and silent acquisition.
print("msal-bench")
