graph():
    # param a : int64[2]
    %a : [num_users=1] = get_attr[target=a]
    %r : [num_users=1] = call_function[target=range](args = (0, 5, 1), kwargs = {})
    return (a, r)
