import MSAL
